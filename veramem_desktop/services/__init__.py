"""The services of one store, each built once by the ``Memory`` facade (the composition root) with
exactly the parts it uses, and kept there as a typed attribute (``mem.reading``, ``mem.review`` …) that the
surfaces call; a few of the SDK's most common calls are also shortcuts on the facade (``mem.search`` is
``mem.recall.search``):

- opening.py: ``Opening`` (``mem.opening``), finding, making and opening the store of one home (and its key), and its status;
- reading.py: ``Reading`` (``mem.reading``), the reads (by id with a caller: core/curation/reads.py; listings); who is asking;
- recall.py: ``Recall`` (``mem.recall``), search, answer and engines for measuring recall, and the checks a search query
  or a question passes before recall runs on it;
- writes.py: ``Writes`` (``mem.writes``), the add path (episodes, then derivation), and ``Adding``
  (``mem.adding``), its checks before anything opens;
- importer.py: ``Importer`` (``mem.importer``), chat history and memory exports in and out, in batches;
- organiser.py: ``Organiser`` (``mem.organiser``), links, budgets and the one background linker thread;
- consolidation.py: ``Consolidation`` (``mem.consolidation``), the idle-time job of the outcome loop;
- curation.py: ``Curation`` (``mem.curation``), pins, expiry, erasure, consent to share, sharing and the action gate;
- review.py: ``Review`` (``mem.review``), the review queue, approval and rejection (a person's acts);
- grants.py: ``Grants`` (``mem.grants``), access grants (a person's acts);
- outcomes.py: ``Outcomes`` (``mem.outcomes``), feedback and the trajectory and training exports;
- device_sync.py: ``DeviceSync`` (``mem.sync``), sync between the person's devices and pairing;
- measuring.py: ``Measuring`` (``mem.measuring``), what the doctor and the benchmarks ask (page check, statement counts,
  stores filled without a model).

What they return is typed in the engine: ``AddResult`` (core/write/results.py), ``ImportReport``
(core/transfer/import_report.py), ``MemoryDetail`` and ``EvidenceView`` (core/curation/detail.py).
"""
