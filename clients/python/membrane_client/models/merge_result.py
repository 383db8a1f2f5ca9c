from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.memory_record_out import MemoryRecordOut


T = TypeVar("T", bound="MergeResult")


@_attrs_define
class MergeResult:
    """
    Attributes:
        merged_record (MemoryRecordOut):
        source_records (list[MemoryRecordOut]):
    """

    merged_record: MemoryRecordOut
    source_records: list[MemoryRecordOut]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.memory_record_out import MemoryRecordOut  # noqa: PLC0415

        merged_record = self.merged_record.to_dict()

        source_records = []
        for source_records_item_data in self.source_records:
            source_records_item = source_records_item_data.to_dict()
            source_records.append(source_records_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "merged_record": merged_record,
                "source_records": source_records,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.memory_record_out import MemoryRecordOut  # noqa: PLC0415

        d = dict(src_dict)
        merged_record = MemoryRecordOut.from_dict(d.pop("merged_record"))

        source_records = []
        _source_records = d.pop("source_records")
        for source_records_item_data in _source_records:
            source_records_item = MemoryRecordOut.from_dict(source_records_item_data)

            source_records.append(source_records_item)

        merge_result = cls(
            merged_record=merged_record,
            source_records=source_records,
        )

        merge_result.additional_properties = d
        return merge_result

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
