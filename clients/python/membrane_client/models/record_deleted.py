from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="RecordDeleted")


@_attrs_define
class RecordDeleted:
    """The record is gone; its audit trail (ending with a `delete` entry) remains.

    Attributes:
        id (str):
        deleted_at (datetime.datetime):
        deleted (bool | Unset):  Default: True.
    """

    id: str
    deleted_at: datetime.datetime
    deleted: bool | Unset = True
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        deleted_at = self.deleted_at.isoformat()

        deleted = self.deleted

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "deleted_at": deleted_at,
            }
        )
        if deleted is not UNSET:
            field_dict["deleted"] = deleted

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        d = dict(src_dict)
        id = d.pop("id")

        deleted_at = datetime.datetime.fromisoformat(d.pop("deleted_at"))

        deleted = d.pop("deleted", UNSET)

        record_deleted = cls(
            id=id,
            deleted_at=deleted_at,
            deleted=deleted,
        )

        record_deleted.additional_properties = d
        return record_deleted

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
