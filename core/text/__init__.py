"""The bottom of the engine: shared words, text, dates and times (pure functions, no IO).

``terms`` splits a text into the words, content terms and entities the indexes and the matching rules
use; ``turns`` is a conversation turn as the indexes hold it; ``normalize`` the forms values are
compared in (NFKC, casefold, confusable skeleton); ``relative_dates`` resolves "yesterday" against a
message's own time, ``explicit_dates`` reads dates written out in full and the month and count words,
``time_values`` reads the times users give and the bounds questions name, ``tense`` which way a clause
points; ``link_types`` names the edges between memories. Nothing here imports the rest of ``core``
except its errors.
"""
