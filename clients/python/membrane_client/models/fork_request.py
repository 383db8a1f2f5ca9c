from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.record_create import RecordCreate


T = TypeVar("T", bound="ForkRequest")


@_attrs_define
class ForkRequest:
    """
    Attributes:
        forked_record (RecordCreate): A typed record. `type` may be omitted: it is the payload's `kind`.
        rationale (str):
    """

    forked_record: RecordCreate
    rationale: str

    def to_dict(self) -> dict[str, Any]:
        from ..models.record_create import RecordCreate  # noqa: PLC0415

        forked_record = self.forked_record.to_dict()

        rationale = self.rationale

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "forked_record": forked_record,
                "rationale": rationale,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.record_create import RecordCreate  # noqa: PLC0415

        d = dict(src_dict)
        forked_record = RecordCreate.from_dict(d.pop("forked_record"))

        rationale = d.pop("rationale")

        fork_request = cls(
            forked_record=forked_record,
            rationale=rationale,
        )

        return fork_request
