"""The Lineage tab's runs: landing where another tab (or the import) sends it (``show_target``),
selecting a run and explaining it below, the timeline's tooltip (``RunsView``, mixed into
:class:`~memorydesk.ui.lineage.tab.LineageTab`, which has what the methods use: its timeline,
panel, controls, run list and detail pane).

Targets for ``navigate`` (``session.navigate("lineage", **target)``):
- ``{"scope": "<userScope>/<assistantScope>"}`` (or ``{"user": U, "assistant": A}``):
  shows that lane's runs (the scope filter is set to it);
- ``{"scope": [{"user": U, "assistant": A}, …]}``: shows only those lanes (a button
  in the filter row says so and shows every lane again);
- ``{"run": "<runId>"}`` or ``{"runs": [<runId>, …]}`` (with or without a scope):
  selects the (first) run and shows why it has its colour.
Lanes or runs asked for are brought into view (the next layout fits the view to the runs
shown); runs that begin after a fixed evaluated time move it to the clock, so they are drawn;
a run that is not drawn is said in the detail pane rather than another run explained.
"""

from __future__ import annotations

from typing import Any

from memorydesk.lineage import timeline
from memorydesk.ui.lineage import colors
from memorydesk.ui.lineage.axes import when_text
from memorydesk.ui.lineage.item import US


class RunsView:
    """Mixed into the Lineage tab (a ``DeskTab``): needs ``table``, ``tl``, ``panel``, ``controls``,
    ``runs``, ``detail``, ``receipts``, ``session``, ``selected_id``, ``hold`` and ``run``."""

    table: Any
    tl: Any
    panel: Any
    controls: Any
    runs: Any
    detail: Any
    receipts: Any
    session: Any
    selected_id: str | None
    _fit_next: bool
    hold: Any
    run: Any

    def show_target(self, target: dict[str, Any]) -> None:
        """Lands once the receipts are read; a run to select waits for the timeline laid out with
        the filters the target set (``_built``)."""
        if self.table is None:  # nothing read yet
            self.hold(target)
            return
        if "select" in target:
            tl = self.tl
            if tl is None or tl.whole is not self.table:
                self.hold(target)
            elif (run := tl.table.index.get(str(target["select"]))) is not None and tl.shown[run]:
                self.panel.show_run(run)
                self.select_run(run)
            else:  # the detail pane says so rather than go on explaining another run
                self.selected_id = str(target["select"])
                self.clear_selection("not drawn at the evaluated time" if run is None else "hidden by the filters")
            return
        lanes = lanes_of(target, self.table.lanes)
        runs = [str(r) for r in target.get("runs", [])] + ([str(target["run"])] if "run" in target else [])
        if lanes or runs:
            self.controls.clear_filters()
        if len(lanes) == 1:
            self.controls.set_scope(f"{lanes[0][0]} / {lanes[0][1]}")
        elif lanes:
            self.controls.set_lanes(lanes)
        elif isinstance(target.get("scope"), str):  # a text that names no lane: the scope filter as it is
            self.controls.set_scope(target["scope"])
        found = [r for r in runs if r in self.table.index]
        if lanes or found:
            self._fit_next = True  # the next layout brings what was asked for into view (Home on it)
        if found and not self.controls.following:
            first = int(self.table.start[[self.table.index[r] for r in found]].min())
            if self.controls.evaluate_us() < first:  # judged before they began: nothing of them would show
                self.controls.follow_clock()
                if self.session is not None:
                    self.session.status.emit("Evaluating at the current time: the runs asked for begin after the "
                                             "time the Lineage tab was evaluated at")
        if found:
            self.hold({"select": found[0]})
        elif runs and self.session is not None:
            self.session.status.emit(f"Run {runs[0]} has no receipts in this workspace")


    def open_run(self, run: int) -> None:
        """The run list's Enter (or double click): the run in view on the timeline, and explained."""
        self.panel.show_run(run)
        self.select_run(run)

    def describe(self, run: int | None, t_us: int) -> str:
        """The timeline's tooltip: the run under the pointer, or the time there (local and UTC)."""
        tl = self.tl
        if tl is None:
            return ""
        if run is None:
            return when_text(t_us / US)
        table = tl.table
        state = timeline.STATES[int(tl.state[run]) - 1]
        return (f"{table.run_ids[run]} — {state.color}: {state} (rule {state.rule})\n"
                f"lane {table.lane_name(int(table.lane[run]))}\n"
                f"first {when_text(table.start[run] / US)}\nlast  {when_text(table.end[run] / US)}"
                + ("\ncanary run" if table.canary[run] else ""))

    def clear_selection(self, why: str) -> None:
        """The selected run is no longer shown: the detail pane says so instead of explaining it."""
        run_id, self.selected_id = self.selected_id, None
        self.panel.item.selected = None
        self.panel.item.update()
        self.detail.show_detail(None, f"Run {run_id} is {why}. Click a run, or press N on the timeline for the "
                                      "next at-risk run, to see why it has its colour.")

    def select_run(self, run: int | None) -> None:
        tl = self.tl
        if tl is None or run is None:
            return
        table = tl.table
        self.selected_id = table.run_ids[run]
        self.panel.item.selected = run
        self.panel.item.update()
        self.runs.show_selected(run)
        state = timeline.STATES[int(tl.state[run]) - 1]
        self.detail.show_pending(
            f"<b>{self.selected_id}</b> · {colors.swatch(state.color)} <b>{state.color}</b> · {state} "
            f"(rule {state.rule}) · lane {table.lane_name(int(table.lane[run]))} · reading its receipts…")
        self._read_detail(self.selected_id)

    def _read_detail(self, run_id: str) -> None:
        now, fresh = self.controls.evaluate_at(), self.controls.fresh_for()
        if fresh is None:
            return

        def show(detail: Any) -> None:
            if run_id != self.selected_id:
                return
            if detail is None:
                self.detail.show_detail(None, f"Run {run_id} has no receipt at or before the evaluated time.")
            else:
                self.detail.show_detail(detail)

        reader = self.receipts
        self.run(lambda ws: reader.detail(ws, run_id, now, fresh), show, label="reading the run's receipts")


def lanes_of(target: dict[str, Any], known: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The lanes a navigation target names: ``scope`` as "user/assistant" text (matched
    against the ``known`` lanes: a scope may hold a slash itself), a {"user", "assistant"}
    mapping or a list of either, or ``user`` and ``assistant`` keys."""
    scope = target.get("scope")
    items = scope if isinstance(scope, list) else [scope] if scope is not None else []
    if "user" in target:
        items.append({"user": target["user"], "assistant": target.get("assistant", "")})
    lanes = []
    for item in items:
        if isinstance(item, dict) and "user" in item:
            lanes.append((str(item["user"]), str(item.get("assistant", ""))))
        elif isinstance(item, str):
            lanes += [lane for lane in known if f"{lane[0]}/{lane[1]}" == item]
    return lanes
