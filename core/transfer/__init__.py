"""Transfer: data in and out of a store.

``chats`` detects and opens other products' chat exports, read by ``chatgpt``, ``claude`` and
``message_lists`` into ``records``; ``memory_export`` writes memories out (through ``plaintext``)
and ``memory_import`` reads them back; ``training`` writes the training records of write
decisions and answers.
"""
