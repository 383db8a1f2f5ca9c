from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.kind_counts import KindCounts


T = TypeVar("T", bound="ImportReport")


@_attrs_define
class ImportReport:
    """What an import wrote. Rows already present (same record id; same edge, same audit
    entry) are skipped, so importing a file twice changes nothing the second time.

        Attributes:
            lines (int): Lines read, header and end line included.
            created (KindCounts):
            skipped (KindCounts):
            queued_for_embedding (int): Created records with text but no vector of the target's embedding model: the
                embedding worker embeds them.
    """

    lines: int
    created: KindCounts
    skipped: KindCounts
    queued_for_embedding: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.kind_counts import KindCounts  # noqa: PLC0415

        lines = self.lines

        created = self.created.to_dict()

        skipped = self.skipped.to_dict()

        queued_for_embedding = self.queued_for_embedding

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "lines": lines,
                "created": created,
                "skipped": skipped,
                "queued_for_embedding": queued_for_embedding,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.kind_counts import KindCounts  # noqa: PLC0415

        d = dict(src_dict)
        lines = d.pop("lines")

        created = KindCounts.from_dict(d.pop("created"))

        skipped = KindCounts.from_dict(d.pop("skipped"))

        queued_for_embedding = d.pop("queued_for_embedding")

        import_report = cls(
            lines=lines,
            created=created,
            skipped=skipped,
            queued_for_embedding=queued_for_embedding,
        )

        import_report.additional_properties = d
        return import_report

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
