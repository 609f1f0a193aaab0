"""The SDK's result types are the engine's own: defined in core, named at the package's top level."""

from __future__ import annotations

import inspect

import veramem_desktop
from veramem_desktop.memory import Memory


def test_result_types_are_importable_from_the_package_and_defined_in_core() -> None:
    from veramem_desktop import AddResult, EvidenceView, ImportReport, MemoryDetail

    for result in (AddResult, EvidenceView, ImportReport, MemoryDetail):
        assert result.__module__.startswith("veramem_desktop.core."), result
        assert result.__name__ in veramem_desktop.__all__


def test_the_facade_returns_the_core_result_types() -> None:
    # the SDK's calls are its services' own (a shortcut on the facade is the service's call itself)
    from veramem_desktop import AddResult, ImportReport, MemoryDetail
    from veramem_desktop.services.importer import Importer
    from veramem_desktop.services.reading import Reading
    from veramem_desktop.services.writes import Adding

    calls = {
        "add": Adding.add,
        "add_document": Adding.add_document,
        "detail": Reading.detail,
        "import_history": Importer.import_history,
    }
    returned = {name: inspect.get_annotations(call, eval_str=True)["return"] for name, call in calls.items()}
    assert returned == {
        "add": AddResult,
        "add_document": AddResult,
        "detail": MemoryDetail,
        "import_history": ImportReport,
    }
    for name in ("add", "import_history"):  # the facade's shortcuts are those calls
        assert vars(Memory)[name].call is calls[name]


def test_an_unknown_name_is_not_an_attribute_of_the_package() -> None:
    assert not hasattr(veramem_desktop, "NoSuchResult")
