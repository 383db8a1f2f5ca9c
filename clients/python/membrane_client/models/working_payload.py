from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, BinaryIO, Generator, Literal, TextIO, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.task_state import TaskState
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.constraint import Constraint
    from ..models.working_payload_state_data import WorkingPayloadStateData


T = TypeVar("T", bound="WorkingPayload")


@_attrs_define
class WorkingPayload:
    """`state` is the original's TaskState. Today's free-form state object is kept in
    `state_data`; an object sent as `state` is moved there (state then `executing`).
    `constraints` are free texts; objects sent there go to `active_constraints`.

        Attributes:
            kind (Literal['working']):
            thread_id (str):
            state (TaskState | Unset): The original's working-memory task state.
            state_data (WorkingPayloadStateData | Unset):
            active_constraints (list[Constraint] | Unset):
            constraints (list[str] | Unset):
            next_actions (list[str] | Unset):
            open_questions (list[str] | Unset):
            context_summary (str | Unset):  Default: ''.
    """

    kind: Literal["working"]
    thread_id: str
    state: TaskState | Unset = UNSET
    state_data: WorkingPayloadStateData | Unset = UNSET
    active_constraints: list[Constraint] | Unset = UNSET
    constraints: list[str] | Unset = UNSET
    next_actions: list[str] | Unset = UNSET
    open_questions: list[str] | Unset = UNSET
    context_summary: str | Unset = ""

    def to_dict(self) -> dict[str, Any]:
        from ..models.constraint import Constraint  # noqa: PLC0415
        from ..models.working_payload_state_data import WorkingPayloadStateData  # noqa: PLC0415

        kind = self.kind

        thread_id = self.thread_id

        state: str | Unset = UNSET
        if not isinstance(self.state, Unset):
            state = self.state.value

        state_data: dict[str, Any] | Unset = UNSET
        if not isinstance(self.state_data, Unset):
            state_data = self.state_data.to_dict()

        active_constraints: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.active_constraints, Unset):
            active_constraints = []
            for active_constraints_item_data in self.active_constraints:
                active_constraints_item = active_constraints_item_data.to_dict()
                active_constraints.append(active_constraints_item)

        constraints: list[str] | Unset = UNSET
        if not isinstance(self.constraints, Unset):
            constraints = self.constraints

        next_actions: list[str] | Unset = UNSET
        if not isinstance(self.next_actions, Unset):
            next_actions = self.next_actions

        open_questions: list[str] | Unset = UNSET
        if not isinstance(self.open_questions, Unset):
            open_questions = self.open_questions

        context_summary = self.context_summary

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "kind": kind,
                "thread_id": thread_id,
            }
        )
        if state is not UNSET:
            field_dict["state"] = state
        if state_data is not UNSET:
            field_dict["state_data"] = state_data
        if active_constraints is not UNSET:
            field_dict["active_constraints"] = active_constraints
        if constraints is not UNSET:
            field_dict["constraints"] = constraints
        if next_actions is not UNSET:
            field_dict["next_actions"] = next_actions
        if open_questions is not UNSET:
            field_dict["open_questions"] = open_questions
        if context_summary is not UNSET:
            field_dict["context_summary"] = context_summary

        return field_dict

    @classmethod
    def from_dict(cls: type[T], src_dict: Mapping[str, Any]) -> T:
        from ..models.constraint import Constraint  # noqa: PLC0415
        from ..models.working_payload_state_data import WorkingPayloadStateData  # noqa: PLC0415

        d = dict(src_dict)
        kind = cast(Literal["working"], d.pop("kind"))
        if kind != "working":
            raise ValueError(f"kind must match const 'working', got '{kind}'")

        thread_id = d.pop("thread_id")

        _state = d.pop("state", UNSET)
        state: TaskState | Unset
        if isinstance(_state, Unset):
            state = UNSET
        else:
            state = TaskState(_state)

        _state_data = d.pop("state_data", UNSET)
        state_data: WorkingPayloadStateData | Unset
        if isinstance(_state_data, Unset):
            state_data = UNSET
        else:
            state_data = WorkingPayloadStateData.from_dict(_state_data)

        _active_constraints = d.pop("active_constraints", UNSET)
        active_constraints: list[Constraint] | Unset = UNSET
        if _active_constraints is not UNSET:
            active_constraints = []
            for active_constraints_item_data in _active_constraints:
                active_constraints_item = Constraint.from_dict(active_constraints_item_data)

                active_constraints.append(active_constraints_item)

        constraints = cast(list[str], d.pop("constraints", UNSET))

        next_actions = cast(list[str], d.pop("next_actions", UNSET))

        open_questions = cast(list[str], d.pop("open_questions", UNSET))

        context_summary = d.pop("context_summary", UNSET)

        working_payload = cls(
            kind=kind,
            thread_id=thread_id,
            state=state,
            state_data=state_data,
            active_constraints=active_constraints,
            constraints=constraints,
            next_actions=next_actions,
            open_questions=open_questions,
            context_summary=context_summary,
        )

        return working_payload
