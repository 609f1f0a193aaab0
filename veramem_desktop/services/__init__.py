"""The services of one store, each built by the ``Memory`` facade (the composition root) with
exactly the parts it uses; each public call of the facade is one delegation to one of them:

- opening.py: ``Opening``, finding, making and opening the store of one home (and its key), and its status;
- reading.py: ``Reading``, the reads (by id with a caller: core/trust/reads.py; listings); who is asking;
- recall.py: ``Recall``, search, answer and engines for measuring recall, and the checks a search query
  or a question passes before recall runs on it;
- writes.py: ``Writes``, the add path (episodes, then derivation), and ``Adding``, its checks before
  anything opens;
- importer.py: ``Importer``, chat history and memory exports in and out, in batches;
- organiser.py: ``Organiser``, links, budgets and the one background linker thread;
- consolidation.py: ``Consolidation``, the idle-time job of the outcome loop;
- curation.py: ``Curation``, pins, expiry, erasure, consent to share, sharing and the action gate;
- review.py: ``Review``, the review queue, approval and rejection (a person's acts);
- grants.py: ``Grants``, access grants (a person's acts);
- outcomes.py: ``Outcomes``, feedback and the trajectory and training exports;
- device_sync.py: ``DeviceSync``, sync between the person's devices and pairing;
- measuring.py: ``Measuring``, what the doctor and the benchmarks ask (page check, statement counts,
  stores filled without a model).

What they return is typed in the engine: ``AddResult`` (core/write/results.py), ``ImportReport``
(core/transfer/import_report.py), ``MemoryDetail`` and ``EvidenceView`` (core/trust/detail.py).
"""
