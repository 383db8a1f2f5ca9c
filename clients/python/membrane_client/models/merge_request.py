from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.record_create import RecordCreate


T = TypeVar("T", bound="MergeRequest")


@_attrs_define
class MergeRequest:
    """
    Attributes:
        ids (list[str]): The records to merge, distinct, all of one type (not episodic).
        merged_record (RecordCreate): A typed record. `type` may be omitted: it is the payload's `kind`.
        rationale (str):
    """

    ids: list[str]
    merged_record: RecordCreate
    rationale: str

    def to_dict(self) -> dict[str, Any]:
        from ..models.record_create import RecordCreate  # noqa: PLC0415

        ids = self.ids

        merged_record = self.merged_record.to_dict()

        rationale = self.rationale

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "ids": ids,
                "merged_record": merged_record,
                "rationale": rationale,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.record_create import RecordCreate  # noqa: PLC0415

        d = dict(src_dict)
        ids = cast(list[str], d.pop("ids"))

        merged_record = RecordCreate.from_dict(d.pop("merged_record"))

        rationale = d.pop("rationale")

        merge_request = cls(
            ids=ids,
            merged_record=merged_record,
            rationale=rationale,
        )

        return merge_request
