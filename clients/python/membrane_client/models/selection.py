from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.selection_candidate import SelectionCandidate


T = TypeVar("T", bound="Selection")


@_attrs_define
class Selection:
    """The selector's pick among competence and plan graph candidates.

    Attributes:
        selected_id (None | str):
        confidence (float):
        needs_more (bool): Confidence below the threshold: gather more first.
        threshold (float):
        candidates (list[SelectionCandidate]):
    """

    selected_id: None | str
    confidence: float
    needs_more: bool
    threshold: float
    candidates: list[SelectionCandidate]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.selection_candidate import SelectionCandidate  # noqa: PLC0415

        selected_id: None | str
        selected_id = self.selected_id

        confidence = self.confidence

        needs_more = self.needs_more

        threshold = self.threshold

        candidates = []
        for candidates_item_data in self.candidates:
            candidates_item = candidates_item_data.to_dict()
            candidates.append(candidates_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "selected_id": selected_id,
                "confidence": confidence,
                "needs_more": needs_more,
                "threshold": threshold,
                "candidates": candidates,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.selection_candidate import SelectionCandidate  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_selected_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        selected_id = _parse_selected_id(d.pop("selected_id"))

        confidence = d.pop("confidence")

        needs_more = d.pop("needs_more")

        threshold = d.pop("threshold")

        candidates = []
        _candidates = d.pop("candidates")
        for candidates_item_data in _candidates:
            candidates_item = SelectionCandidate.from_dict(candidates_item_data)

            candidates.append(candidates_item)

        selection = cls(
            selected_id=selected_id,
            confidence=confidence,
            needs_more=needs_more,
            threshold=threshold,
            candidates=candidates,
        )

        selection.additional_properties = d
        return selection

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
