"""Transfer: data in and out of a store.

``chats`` reads other products' chat exports; ``memories`` exports memories and imports
them back; ``training`` writes the training records of write decisions and answers.
"""
