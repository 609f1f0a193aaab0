"""The SDK's result types are the engine's own: defined in core, named at the package's top level."""

from __future__ import annotations

import inspect

import veramem_desktop
from veramem_desktop import memory as memory_module
from veramem_desktop.memory import Memory


def test_result_types_are_importable_from_the_package_and_defined_in_core() -> None:
    from veramem_desktop import AddResult, EvidenceView, ImportReport, MemoryDetail

    for result in (AddResult, EvidenceView, ImportReport, MemoryDetail):
        assert result.__module__.startswith("veramem_desktop.core."), result
        assert result.__name__ in veramem_desktop.__all__


def test_the_facade_returns_the_core_result_types() -> None:
    from veramem_desktop import AddResult, ImportReport, MemoryDetail

    returned = {
        name: vars(memory_module)[inspect.signature(getattr(Memory, name)).return_annotation]
        for name in ("add", "add_document", "detail", "import_history")
    }
    assert returned == {
        "add": AddResult,
        "add_document": AddResult,
        "detail": MemoryDetail,
        "import_history": ImportReport,
    }


def test_an_unknown_name_is_not_an_attribute_of_the_package() -> None:
    assert not hasattr(veramem_desktop, "NoSuchResult")
