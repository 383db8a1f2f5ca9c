from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.record_create import RecordCreate


T = TypeVar("T", bound="SupersedeRequest")


@_attrs_define
class SupersedeRequest:
    """
    Attributes:
        new_record (RecordCreate): A typed record. `type` may be omitted: it is the payload's `kind`.
        rationale (str):
    """

    new_record: RecordCreate
    rationale: str

    def to_dict(self) -> dict[str, Any]:
        from ..models.record_create import RecordCreate  # noqa: PLC0415

        new_record = self.new_record.to_dict()

        rationale = self.rationale

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "new_record": new_record,
                "rationale": rationale,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.record_create import RecordCreate  # noqa: PLC0415

        d = dict(src_dict)
        new_record = RecordCreate.from_dict(d.pop("new_record"))

        rationale = d.pop("rationale")

        supersede_request = cls(
            new_record=new_record,
            rationale=rationale,
        )

        return supersede_request
