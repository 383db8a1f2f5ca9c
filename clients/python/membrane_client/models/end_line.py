from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, Literal, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.end_line_counts import EndLineCounts


T = TypeVar("T", bound="EndLine")


@_attrs_define
class EndLine:
    """Last line: how many lines of each kind precede it (a truncated file has none).

    Attributes:
        counts (EndLineCounts):
        kind (Literal['end'] | Unset):  Default: 'end'.
    """

    counts: EndLineCounts
    kind: Literal["end"] | Unset = "end"

    def to_dict(self) -> dict[str, Any]:
        from ..models.end_line_counts import EndLineCounts  # noqa: PLC0415

        counts = self.counts.to_dict()

        kind = self.kind

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "counts": counts,
            }
        )
        if kind is not UNSET:
            field_dict["kind"] = kind

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.end_line_counts import EndLineCounts  # noqa: PLC0415

        d = dict(src_dict)
        counts = EndLineCounts.from_dict(d.pop("counts"))

        kind = cast(Literal["end"] | Unset, d.pop("kind", UNSET))
        if kind != "end" and not isinstance(kind, Unset):
            raise ValueError(f"kind must match const 'end', got '{kind}'")

        end_line = cls(
            counts=counts,
            kind=kind,
        )

        return end_line
