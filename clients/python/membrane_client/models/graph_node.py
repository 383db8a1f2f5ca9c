from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.memory_record_out import MemoryRecordOut
    from ..models.redacted_record_out import RedactedRecordOut


T = TypeVar("T", bound="GraphNode")


@_attrs_define
class GraphNode:
    """
    Attributes:
        record (MemoryRecordOut | RedactedRecordOut):
        depth (int): 0 for roots, hops from the nearest root otherwise.
        expanded (bool): Whether its edges were followed (never if redacted).
    """

    record: MemoryRecordOut | RedactedRecordOut
    depth: int
    expanded: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.memory_record_out import MemoryRecordOut  # noqa: PLC0415
        from ..models.redacted_record_out import RedactedRecordOut  # noqa: PLC0415

        record: dict[str, Any]
        if isinstance(self.record, MemoryRecordOut):
            record = self.record.to_dict()
        else:
            record = self.record.to_dict()

        depth = self.depth

        expanded = self.expanded

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "record": record,
                "depth": depth,
                "expanded": expanded,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.memory_record_out import MemoryRecordOut  # noqa: PLC0415
        from ..models.redacted_record_out import RedactedRecordOut  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_record(data: object) -> MemoryRecordOut | RedactedRecordOut:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                record_type_0 = MemoryRecordOut.from_dict(data)

                return record_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            record_type_1 = RedactedRecordOut.from_dict(data)

            return record_type_1

        record = _parse_record(d.pop("record"))

        depth = d.pop("depth")

        expanded = d.pop("expanded")

        graph_node = cls(
            record=record,
            depth=depth,
            expanded=expanded,
        )

        graph_node.additional_properties = d
        return graph_node

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
