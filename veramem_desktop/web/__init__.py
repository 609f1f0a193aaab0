"""The static web page served by `veramem serve`."""
