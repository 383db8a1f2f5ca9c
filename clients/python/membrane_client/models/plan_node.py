from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.plan_node_guards_type_0 import PlanNodeGuardsType0
    from ..models.plan_node_params import PlanNodeParams


T = TypeVar("T", bound="PlanNode")


@_attrs_define
class PlanNode:
    """
    Attributes:
        id (str):
        op (str):
        params (PlanNodeParams | Unset):
        guards (None | PlanNodeGuardsType0 | Unset):
    """

    id: str
    op: str
    params: PlanNodeParams | Unset = UNSET
    guards: None | PlanNodeGuardsType0 | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.plan_node_guards_type_0 import PlanNodeGuardsType0  # noqa: PLC0415
        from ..models.plan_node_params import PlanNodeParams  # noqa: PLC0415

        id = self.id

        op = self.op

        params: dict[str, Any] | Unset = UNSET
        if not isinstance(self.params, Unset):
            params = self.params.to_dict()

        guards: dict[str, Any] | None | Unset
        if isinstance(self.guards, Unset):
            guards = UNSET
        elif isinstance(self.guards, PlanNodeGuardsType0):
            guards = self.guards.to_dict()
        else:
            guards = self.guards

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "id": id,
                "op": op,
            }
        )
        if params is not UNSET:
            field_dict["params"] = params
        if guards is not UNSET:
            field_dict["guards"] = guards

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.plan_node_guards_type_0 import PlanNodeGuardsType0  # noqa: PLC0415
        from ..models.plan_node_params import PlanNodeParams  # noqa: PLC0415

        d = dict(src_dict)
        id = d.pop("id")

        op = d.pop("op")

        _params = d.pop("params", UNSET)
        params: PlanNodeParams | Unset
        if isinstance(_params, Unset):
            params = UNSET
        else:
            params = PlanNodeParams.from_dict(_params)

        def _parse_guards(data: object) -> None | PlanNodeGuardsType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                guards_type_0 = PlanNodeGuardsType0.from_dict(data)

                return guards_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PlanNodeGuardsType0 | Unset, data)

        guards = _parse_guards(d.pop("guards", UNSET))

        plan_node = cls(
            id=id,
            op=op,
            params=params,
            guards=guards,
        )

        return plan_node
