from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.memory_record_out import MemoryRecordOut


T = TypeVar("T", bound="SupersedeResult")


@_attrs_define
class SupersedeResult:
    """
    Attributes:
        old_record (MemoryRecordOut):
        new_record (MemoryRecordOut):
    """

    old_record: MemoryRecordOut
    new_record: MemoryRecordOut
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.memory_record_out import MemoryRecordOut  # noqa: PLC0415

        old_record = self.old_record.to_dict()

        new_record = self.new_record.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "old_record": old_record,
                "new_record": new_record,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.memory_record_out import MemoryRecordOut  # noqa: PLC0415

        d = dict(src_dict)
        old_record = MemoryRecordOut.from_dict(d.pop("old_record"))

        new_record = MemoryRecordOut.from_dict(d.pop("new_record"))

        supersede_result = cls(
            old_record=old_record,
            new_record=new_record,
        )

        supersede_result.additional_properties = d
        return supersede_result

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
