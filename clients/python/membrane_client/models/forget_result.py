from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="ForgetResult")


@_attrs_define
class ForgetResult:
    """What was forgotten (or, for a dry run, what would be).

    Attributes:
        records (int): Records deleted (or that a dry run would delete).
        edges (int): Edges removed with them, in either direction.
        kept (int): Matching records left in place: their deletion policy is `never`.
        audit_entries_erased (int): Audit entries whose rationale and details were erased (erase only).
        dry_run (bool):
        erase (bool):
    """

    records: int
    edges: int
    kept: int
    audit_entries_erased: int
    dry_run: bool
    erase: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        records = self.records

        edges = self.edges

        kept = self.kept

        audit_entries_erased = self.audit_entries_erased

        dry_run = self.dry_run

        erase = self.erase

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "records": records,
                "edges": edges,
                "kept": kept,
                "audit_entries_erased": audit_entries_erased,
                "dry_run": dry_run,
                "erase": erase,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        records = d.pop("records")

        edges = d.pop("edges")

        kept = d.pop("kept")

        audit_entries_erased = d.pop("audit_entries_erased")

        dry_run = d.pop("dry_run")

        erase = d.pop("erase")

        forget_result = cls(
            records=records,
            edges=edges,
            kept=kept,
            audit_entries_erased=audit_entries_erased,
            dry_run=dry_run,
            erase=erase,
        )

        forget_result.additional_properties = d
        return forget_result

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
