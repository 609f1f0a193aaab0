"""The two ways an LLM backend fails, both ``ModelError`` so callers need catch only one.

``MalformedReplyError`` means the model answered but the answer was unusable (not JSON,
missing fields, an id it was not offered): asking again may help. ``BackendUnavailableError``
means the model could not be reached or did not answer in time: asking again at once
would only repeat the wait, so the JSON backend does not retry it.
"""

from __future__ import annotations

from veramem_desktop.core.errors import ModelError


class MalformedReplyError(ModelError):
    title = "Unusable model reply"


class BackendUnavailableError(ModelError):
    title = "Model unavailable"
