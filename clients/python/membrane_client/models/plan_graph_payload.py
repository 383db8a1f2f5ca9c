from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, Literal, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.plan_edge import PlanEdge
    from ..models.plan_graph_payload_constraints_type_1 import PlanGraphPayloadConstraintsType1
    from ..models.plan_graph_payload_inputs_schema_type_0 import PlanGraphPayloadInputsSchemaType0
    from ..models.plan_graph_payload_outputs_schema_type_0 import PlanGraphPayloadOutputsSchemaType0
    from ..models.plan_metrics import PlanMetrics
    from ..models.plan_node import PlanNode


T = TypeVar("T", bound="PlanGraphPayload")


@_attrs_define
class PlanGraphPayload:
    """`version` is an integer (today) or the original's string; `constraints` a list of
    texts (today) or the original's object; `input_schema` / `output_schema` are
    accepted for the original's `inputs_schema` / `outputs_schema`.

        Attributes:
            kind (Literal['plan_graph']):
            plan_id (str):
            version (int | str | Unset):  Default: 1.
            intent (str | Unset):  Default: ''.
            constraints (list[str] | PlanGraphPayloadConstraintsType1 | Unset):
            inputs_schema (None | PlanGraphPayloadInputsSchemaType0 | Unset):
            outputs_schema (None | PlanGraphPayloadOutputsSchemaType0 | Unset):
            nodes (list[PlanNode] | Unset):
            edges (list[PlanEdge] | Unset):
            metrics (PlanMetrics | Unset):
    """

    kind: Literal["plan_graph"]
    plan_id: str
    version: int | str | Unset = 1
    intent: str | Unset = ""
    constraints: list[str] | PlanGraphPayloadConstraintsType1 | Unset = UNSET
    inputs_schema: None | PlanGraphPayloadInputsSchemaType0 | Unset = UNSET
    outputs_schema: None | PlanGraphPayloadOutputsSchemaType0 | Unset = UNSET
    nodes: list[PlanNode] | Unset = UNSET
    edges: list[PlanEdge] | Unset = UNSET
    metrics: PlanMetrics | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.plan_edge import PlanEdge  # noqa: PLC0415
        from ..models.plan_graph_payload_constraints_type_1 import PlanGraphPayloadConstraintsType1  # noqa: PLC0415
        from ..models.plan_graph_payload_inputs_schema_type_0 import PlanGraphPayloadInputsSchemaType0  # noqa: PLC0415
        from ..models.plan_graph_payload_outputs_schema_type_0 import PlanGraphPayloadOutputsSchemaType0  # noqa: PLC0415
        from ..models.plan_metrics import PlanMetrics  # noqa: PLC0415
        from ..models.plan_node import PlanNode  # noqa: PLC0415

        kind = self.kind

        plan_id = self.plan_id

        version: int | str | Unset
        if isinstance(self.version, Unset):
            version = UNSET
        else:
            version = self.version

        intent = self.intent

        constraints: dict[str, Any] | list[str] | Unset
        if isinstance(self.constraints, Unset):
            constraints = UNSET
        elif isinstance(self.constraints, list):
            constraints = self.constraints

        else:
            constraints = self.constraints.to_dict()

        inputs_schema: dict[str, Any] | None | Unset
        if isinstance(self.inputs_schema, Unset):
            inputs_schema = UNSET
        elif isinstance(self.inputs_schema, PlanGraphPayloadInputsSchemaType0):
            inputs_schema = self.inputs_schema.to_dict()
        else:
            inputs_schema = self.inputs_schema

        outputs_schema: dict[str, Any] | None | Unset
        if isinstance(self.outputs_schema, Unset):
            outputs_schema = UNSET
        elif isinstance(self.outputs_schema, PlanGraphPayloadOutputsSchemaType0):
            outputs_schema = self.outputs_schema.to_dict()
        else:
            outputs_schema = self.outputs_schema

        nodes: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.nodes, Unset):
            nodes = []
            for nodes_item_data in self.nodes:
                nodes_item = nodes_item_data.to_dict()
                nodes.append(nodes_item)

        edges: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.edges, Unset):
            edges = []
            for edges_item_data in self.edges:
                edges_item = edges_item_data.to_dict()
                edges.append(edges_item)

        metrics: dict[str, Any] | Unset = UNSET
        if not isinstance(self.metrics, Unset):
            metrics = self.metrics.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "kind": kind,
                "plan_id": plan_id,
            }
        )
        if version is not UNSET:
            field_dict["version"] = version
        if intent is not UNSET:
            field_dict["intent"] = intent
        if constraints is not UNSET:
            field_dict["constraints"] = constraints
        if inputs_schema is not UNSET:
            field_dict["inputs_schema"] = inputs_schema
        if outputs_schema is not UNSET:
            field_dict["outputs_schema"] = outputs_schema
        if nodes is not UNSET:
            field_dict["nodes"] = nodes
        if edges is not UNSET:
            field_dict["edges"] = edges
        if metrics is not UNSET:
            field_dict["metrics"] = metrics

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.plan_edge import PlanEdge  # noqa: PLC0415
        from ..models.plan_graph_payload_constraints_type_1 import PlanGraphPayloadConstraintsType1  # noqa: PLC0415
        from ..models.plan_graph_payload_inputs_schema_type_0 import PlanGraphPayloadInputsSchemaType0  # noqa: PLC0415
        from ..models.plan_graph_payload_outputs_schema_type_0 import PlanGraphPayloadOutputsSchemaType0  # noqa: PLC0415
        from ..models.plan_metrics import PlanMetrics  # noqa: PLC0415
        from ..models.plan_node import PlanNode  # noqa: PLC0415

        d = dict(src_dict)
        kind = cast(Literal["plan_graph"], d.pop("kind"))
        if kind != "plan_graph":
            raise ValueError(f"kind must match const 'plan_graph', got '{kind}'")

        plan_id = d.pop("plan_id")

        def _parse_version(data: object) -> int | str | Unset:
            if isinstance(data, Unset):
                return data
            return cast(int | str | Unset, data)

        version = _parse_version(d.pop("version", UNSET))

        intent = d.pop("intent", UNSET)

        def _parse_constraints(data: object) -> list[str] | PlanGraphPayloadConstraintsType1 | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                constraints_type_0 = cast(list[str], data)

                return constraints_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            constraints_type_1 = PlanGraphPayloadConstraintsType1.from_dict(data)

            return constraints_type_1

        constraints = _parse_constraints(d.pop("constraints", UNSET))

        def _parse_inputs_schema(data: object) -> None | PlanGraphPayloadInputsSchemaType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                inputs_schema_type_0 = PlanGraphPayloadInputsSchemaType0.from_dict(data)

                return inputs_schema_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PlanGraphPayloadInputsSchemaType0 | Unset, data)

        inputs_schema = _parse_inputs_schema(d.pop("inputs_schema", UNSET))

        def _parse_outputs_schema(data: object) -> None | PlanGraphPayloadOutputsSchemaType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                outputs_schema_type_0 = PlanGraphPayloadOutputsSchemaType0.from_dict(data)

                return outputs_schema_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PlanGraphPayloadOutputsSchemaType0 | Unset, data)

        outputs_schema = _parse_outputs_schema(d.pop("outputs_schema", UNSET))

        _nodes = d.pop("nodes", UNSET)
        nodes: list[PlanNode] | Unset = UNSET
        if _nodes is not UNSET:
            nodes = []
            for nodes_item_data in _nodes:
                nodes_item = PlanNode.from_dict(nodes_item_data)

                nodes.append(nodes_item)

        _edges = d.pop("edges", UNSET)
        edges: list[PlanEdge] | Unset = UNSET
        if _edges is not UNSET:
            edges = []
            for edges_item_data in _edges:
                edges_item = PlanEdge.from_dict(edges_item_data)

                edges.append(edges_item)

        _metrics = d.pop("metrics", UNSET)
        metrics: PlanMetrics | Unset
        if isinstance(_metrics, Unset):
            metrics = UNSET
        else:
            metrics = PlanMetrics.from_dict(_metrics)

        plan_graph_payload = cls(
            kind=kind,
            plan_id=plan_id,
            version=version,
            intent=intent,
            constraints=constraints,
            inputs_schema=inputs_schema,
            outputs_schema=outputs_schema,
            nodes=nodes,
            edges=edges,
            metrics=metrics,
        )

        return plan_graph_payload
