from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.retrieved_item import RetrievedItem
    from ..models.selection import Selection


T = TypeVar("T", bound="RetrieveResponse")


@_attrs_define
class RetrieveResponse:
    """
    Attributes:
        items (list[RetrievedItem]):
        signals (list[str]): Signals that ranked this answer: lexical, vector, entity, context, salience.
        selection (None | Selection | Unset):
    """

    items: list[RetrievedItem]
    signals: list[str]
    selection: None | Selection | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.retrieved_item import RetrievedItem  # noqa: PLC0415
        from ..models.selection import Selection  # noqa: PLC0415

        items = []
        for items_item_data in self.items:
            items_item = items_item_data.to_dict()
            items.append(items_item)

        signals = self.signals

        selection: dict[str, Any] | None | Unset
        if isinstance(self.selection, Unset):
            selection = UNSET
        elif isinstance(self.selection, Selection):
            selection = self.selection.to_dict()
        else:
            selection = self.selection

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "items": items,
                "signals": signals,
            }
        )
        if selection is not UNSET:
            field_dict["selection"] = selection

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.retrieved_item import RetrievedItem  # noqa: PLC0415
        from ..models.selection import Selection  # noqa: PLC0415

        d = dict(src_dict)
        items = []
        _items = d.pop("items")
        for items_item_data in _items:
            items_item = RetrievedItem.from_dict(items_item_data)

            items.append(items_item)

        signals = cast(list[str], d.pop("signals"))

        def _parse_selection(data: object) -> None | Selection | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                selection_type_0 = Selection.from_dict(data)

                return selection_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Selection | Unset, data)

        selection = _parse_selection(d.pop("selection", UNSET))

        retrieve_response = cls(
            items=items,
            signals=signals,
            selection=selection,
        )

        retrieve_response.additional_properties = d
        return retrieve_response

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
