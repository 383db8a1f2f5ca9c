from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.memory_type import MemoryType
from ..models.status import Status
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.graph_request_context_type_0 import GraphRequestContextType0
    from ..models.trust_narrowing_in import TrustNarrowingIn


T = TypeVar("T", bound="GraphRequest")


@_attrs_define
class GraphRequest:
    """
    Attributes:
        query (None | str | Unset): Task descriptor or question. Without one, records come by salience.
        trust (None | TrustNarrowingIn | Unset):
        types (list[MemoryType] | Unset):
        tags (list[str] | Unset): Records carrying ALL these tags.
        scopes (list[str] | Unset):
        statuses (list[Status] | None | Unset): Default: active and contested (no retracted, superseded).
        min_salience (float | None | Unset): On current salience.
        limit (int | Unset): How many ranked roots. Default: 10.
        group_by_layer (bool | Unset): Order results by layer (working, entity, semantic, competence, plan_graph,
            episodic), then by score. Default: False.
        expand_context (bool | Unset): Let strong episodic hits lend a share of their score to the records captured just
            before and after them in the same scope, and to the candidates of their sitting (same scope, event times within
            30 minutes). Default: True.
        valid_at (datetime.datetime | None | Unset): The moment semantic facts must hold at: a fact whose validity
            window (start inclusive, end exclusive) leaves it out is not returned. Default: now.
        context (GraphRequestContextType0 | None | Unset): The situation at hand, as condition values (environment keys,
            active constraints) and `tools`, the tool names at hand: a conditional fact with a condition this contradicts
            (same key, other value) is not returned, and the selector matches it against competence triggers and plan graph
            constraints.
        max_hops (int | Unset):  Default: 1.
        node_limit (int | Unset): Roots included. Default: 25.
        edge_limit (int | Unset):  Default: 100.
        predicates (list[str] | None | Unset): Follow only these edge predicates.
    """

    query: None | str | Unset = UNSET
    trust: None | TrustNarrowingIn | Unset = UNSET
    types: list[MemoryType] | Unset = UNSET
    tags: list[str] | Unset = UNSET
    scopes: list[str] | Unset = UNSET
    statuses: list[Status] | None | Unset = UNSET
    min_salience: float | None | Unset = UNSET
    limit: int | Unset = 10
    group_by_layer: bool | Unset = False
    expand_context: bool | Unset = True
    valid_at: datetime.datetime | None | Unset = UNSET
    context: GraphRequestContextType0 | None | Unset = UNSET
    max_hops: int | Unset = 1
    node_limit: int | Unset = 25
    edge_limit: int | Unset = 100
    predicates: list[str] | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.graph_request_context_type_0 import GraphRequestContextType0  # noqa: PLC0415
        from ..models.trust_narrowing_in import TrustNarrowingIn  # noqa: PLC0415

        query: None | str | Unset
        if isinstance(self.query, Unset):
            query = UNSET
        else:
            query = self.query

        trust: dict[str, Any] | None | Unset
        if isinstance(self.trust, Unset):
            trust = UNSET
        elif isinstance(self.trust, TrustNarrowingIn):
            trust = self.trust.to_dict()
        else:
            trust = self.trust

        types: list[str] | Unset = UNSET
        if not isinstance(self.types, Unset):
            types = []
            for types_item_data in self.types:
                types_item = types_item_data.value
                types.append(types_item)

        tags: list[str] | Unset = UNSET
        if not isinstance(self.tags, Unset):
            tags = self.tags

        scopes: list[str] | Unset = UNSET
        if not isinstance(self.scopes, Unset):
            scopes = self.scopes

        statuses: list[str] | None | Unset
        if isinstance(self.statuses, Unset):
            statuses = UNSET
        elif isinstance(self.statuses, list):
            statuses = []
            for statuses_type_0_item_data in self.statuses:
                statuses_type_0_item = statuses_type_0_item_data.value
                statuses.append(statuses_type_0_item)

        else:
            statuses = self.statuses

        min_salience: float | None | Unset
        if isinstance(self.min_salience, Unset):
            min_salience = UNSET
        else:
            min_salience = self.min_salience

        limit = self.limit

        group_by_layer = self.group_by_layer

        expand_context = self.expand_context

        valid_at: None | str | Unset
        if isinstance(self.valid_at, Unset):
            valid_at = UNSET
        elif isinstance(self.valid_at, datetime.datetime):
            valid_at = self.valid_at.isoformat()
        else:
            valid_at = self.valid_at

        context: dict[str, Any] | None | Unset
        if isinstance(self.context, Unset):
            context = UNSET
        elif isinstance(self.context, GraphRequestContextType0):
            context = self.context.to_dict()
        else:
            context = self.context

        max_hops = self.max_hops

        node_limit = self.node_limit

        edge_limit = self.edge_limit

        predicates: list[str] | None | Unset
        if isinstance(self.predicates, Unset):
            predicates = UNSET
        elif isinstance(self.predicates, list):
            predicates = self.predicates

        else:
            predicates = self.predicates

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if query is not UNSET:
            field_dict["query"] = query
        if trust is not UNSET:
            field_dict["trust"] = trust
        if types is not UNSET:
            field_dict["types"] = types
        if tags is not UNSET:
            field_dict["tags"] = tags
        if scopes is not UNSET:
            field_dict["scopes"] = scopes
        if statuses is not UNSET:
            field_dict["statuses"] = statuses
        if min_salience is not UNSET:
            field_dict["min_salience"] = min_salience
        if limit is not UNSET:
            field_dict["limit"] = limit
        if group_by_layer is not UNSET:
            field_dict["group_by_layer"] = group_by_layer
        if expand_context is not UNSET:
            field_dict["expand_context"] = expand_context
        if valid_at is not UNSET:
            field_dict["valid_at"] = valid_at
        if context is not UNSET:
            field_dict["context"] = context
        if max_hops is not UNSET:
            field_dict["max_hops"] = max_hops
        if node_limit is not UNSET:
            field_dict["node_limit"] = node_limit
        if edge_limit is not UNSET:
            field_dict["edge_limit"] = edge_limit
        if predicates is not UNSET:
            field_dict["predicates"] = predicates

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.graph_request_context_type_0 import GraphRequestContextType0  # noqa: PLC0415
        from ..models.trust_narrowing_in import TrustNarrowingIn  # noqa: PLC0415

        d = dict(src_dict)

        def _parse_query(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        query = _parse_query(d.pop("query", UNSET))

        def _parse_trust(data: object) -> None | TrustNarrowingIn | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                trust_type_0 = TrustNarrowingIn.from_dict(data)

                return trust_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TrustNarrowingIn | Unset, data)

        trust = _parse_trust(d.pop("trust", UNSET))

        _types = d.pop("types", UNSET)
        types: list[MemoryType] | Unset = UNSET
        if _types is not UNSET:
            types = []
            for types_item_data in _types:
                types_item = MemoryType(types_item_data)

                types.append(types_item)

        tags = cast(list[str], d.pop("tags", UNSET))

        scopes = cast(list[str], d.pop("scopes", UNSET))

        def _parse_statuses(data: object) -> list[Status] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                statuses_type_0 = []
                _statuses_type_0 = data
                for statuses_type_0_item_data in _statuses_type_0:
                    statuses_type_0_item = Status(statuses_type_0_item_data)

                    statuses_type_0.append(statuses_type_0_item)

                return statuses_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[Status] | None | Unset, data)

        statuses = _parse_statuses(d.pop("statuses", UNSET))

        def _parse_min_salience(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        min_salience = _parse_min_salience(d.pop("min_salience", UNSET))

        limit = d.pop("limit", UNSET)

        group_by_layer = d.pop("group_by_layer", UNSET)

        expand_context = d.pop("expand_context", UNSET)

        def _parse_valid_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                valid_at_type_0 = datetime.datetime.fromisoformat(data)

                return valid_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        valid_at = _parse_valid_at(d.pop("valid_at", UNSET))

        def _parse_context(data: object) -> GraphRequestContextType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                context_type_0 = GraphRequestContextType0.from_dict(data)

                return context_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(GraphRequestContextType0 | None | Unset, data)

        context = _parse_context(d.pop("context", UNSET))

        max_hops = d.pop("max_hops", UNSET)

        node_limit = d.pop("node_limit", UNSET)

        edge_limit = d.pop("edge_limit", UNSET)

        def _parse_predicates(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                predicates_type_0 = cast(list[str], data)

                return predicates_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        predicates = _parse_predicates(d.pop("predicates", UNSET))

        graph_request = cls(
            query=query,
            trust=trust,
            types=types,
            tags=tags,
            scopes=scopes,
            statuses=statuses,
            min_salience=min_salience,
            limit=limit,
            group_by_layer=group_by_layer,
            expand_context=expand_context,
            valid_at=valid_at,
            context=context,
            max_hops=max_hops,
            node_limit=node_limit,
            edge_limit=edge_limit,
            predicates=predicates,
        )

        return graph_request
