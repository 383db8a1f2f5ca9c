from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.memory_record_out import MemoryRecordOut
    from ..models.relation_out import RelationOut


T = TypeVar("T", bound="CaptureResponse")


@_attrs_define
class CaptureResponse:
    """
    Attributes:
        primary_record (MemoryRecordOut):
        created_records (list[MemoryRecordOut]):
        edges (list[RelationOut]):
    """

    primary_record: MemoryRecordOut
    created_records: list[MemoryRecordOut]
    edges: list[RelationOut]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.memory_record_out import MemoryRecordOut  # noqa: PLC0415
        from ..models.relation_out import RelationOut  # noqa: PLC0415

        primary_record = self.primary_record.to_dict()

        created_records = []
        for created_records_item_data in self.created_records:
            created_records_item = created_records_item_data.to_dict()
            created_records.append(created_records_item)

        edges = []
        for edges_item_data in self.edges:
            edges_item = edges_item_data.to_dict()
            edges.append(edges_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "primary_record": primary_record,
                "created_records": created_records,
                "edges": edges,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.memory_record_out import MemoryRecordOut  # noqa: PLC0415
        from ..models.relation_out import RelationOut  # noqa: PLC0415

        d = dict(src_dict)
        primary_record = MemoryRecordOut.from_dict(d.pop("primary_record"))

        created_records = []
        _created_records = d.pop("created_records")
        for created_records_item_data in _created_records:
            created_records_item = MemoryRecordOut.from_dict(created_records_item_data)

            created_records.append(created_records_item)

        edges = []
        _edges = d.pop("edges")
        for edges_item_data in _edges:
            edges_item = RelationOut.from_dict(edges_item_data)

            edges.append(edges_item)

        capture_response = cls(
            primary_record=primary_record,
            created_records=created_records,
            edges=edges,
        )

        capture_response.additional_properties = d
        return capture_response

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
