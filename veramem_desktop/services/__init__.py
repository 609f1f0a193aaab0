"""The services of one store, each built by the ``Memory`` facade (the composition root) with
exactly the parts it uses:

- opening.py: ``Opening``, finding, making and opening the store of one home (and its key);
- writes.py: ``Writes``, the add path (episodes, then derivation);
- importer.py: ``Importer``, chat history and memory exports in and out, in batches;
- organiser.py: ``Organiser``, links, budgets and the one background linker thread;
- consolidation.py: ``Consolidation``, the idle-time job of the outcome loop;
- curation.py: ``Curation``, pins, expiry, erasure, consent to share, sharing and the action gate;
- recall.py: the checks a search query or a question passes before recall runs on it;
- outcomes.py: ``Outcomes``, feedback and the trajectory and training exports;
- device_sync.py: ``DeviceSync``, sync between the person's devices and pairing.

What they return is typed in the engine: ``AddResult`` (core/write/results.py), ``ImportReport``
(core/transfer/import_report.py), ``MemoryDetail`` and ``EvidenceView`` (core/trust/detail.py).
"""
