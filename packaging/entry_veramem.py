"""Entry point of the standalone `veramem`: the same `main` as the `veramem` console script."""

from veramem_desktop.cli import main

if __name__ == "__main__":
    main()
