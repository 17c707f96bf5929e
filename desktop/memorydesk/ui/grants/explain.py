"""What a grant cell, a domain or an agent's grants mean in the product, in plain sentences
(HTML for the side panel). Only ``write`` is enforced, and only by ``propose_policy``;
the text says so every time, because a ``none`` that stops nothing is the trap."""

from __future__ import annotations

import html

from memorydesk.browse.grants import DomainDetail, GrantAgent, GrantMatrix
from memorydesk.core.product.grants import ROLES, Cell, Source
from memorydesk.core.product.vocab import Permission, parse_domain_scope
from memorydesk.ui.widgets.text import when

E = html.escape
LIST_LIMIT = 40

WRITE_MEANS = ("Agents acting as <b>{role}</b> can <b>promote facts to policies</b> in this domain "
               "(<code>propose_policy</code> is allowed). That is all a grant decides: every agent reads this "
               "domain's facts, gets its active policies in every dispatch and writes facts to it, whatever "
               "the grant says.")
NOT_WRITE_MEANS = ("<code>propose_policy</code> is <b>refused</b> for agents acting as <b>{role}</b> here. "
                   "Nothing else is stopped: <b>{perm} is not enforced</b> — they still find this domain's facts "
                   "in search, get its active policies in every dispatch, and write facts to it. Reads fail "
                   "open by design.")


def _names(items: list[str]) -> str:
    shown = ", ".join(E(x) for x in items[:LIST_LIMIT])
    return shown + (f" … and {len(items) - LIST_LIMIT:,} more" if len(items) > LIST_LIMIT else "")


def source_sentence(cell: Cell, read_order: str) -> str:
    """Where the permission came from, naming the rows."""
    first = cell.decided_by
    if cell.source is Source.FAIL_OPEN:
        bare = parse_domain_scope(cell.domain)
        tail = f", nor on its bare name <b>{E(bare.name)}</b>" if bare.is_repo_scoped else ""
        return (f"<b>Fail-open</b>: no grant row for {E(cell.role.value)} on this domain{tail}, so the product "
                "reads it as <b>read</b>. A domain created today would seed write for all nine roles instead.")
    assert first is not None
    row = f"<code>{E(first.describe())}</code>"
    if cell.source is Source.AMBIGUOUS:
        listed = "".join(f"<li><code>{E(r.describe())}</code></li>" for r in cell.rows)
        return (f"<b>Ambiguous</b>: {len(cell.rows)} rows match this cell:<ol>{listed}</ol>The product takes the "
                f"first it reads; SQLite returns this file's grant rows {E(read_order or 'in its own order')}, so "
                f"row 1 decides. Set the cell (or fix a row) so only one row is left.")
    if cell.source is Source.UNKNOWN_VALUE:
        return (f"<b>Unknown string</b> in the deciding row {row}. The product reads an unknown permission as "
                "read and an unknown role as general; fix the row to say what was meant.")
    if cell.source is Source.BARE_NAME:
        return (f"<b>From the bare name</b>: this repo-scoped domain has no row for {E(cell.role.value)}, so the "
                f"row of <b>{E(cell.via or '')}</b> decides: {row}.")
    return f"<b>Exact row</b>: {row}."


def agents_line(role: str, agents: dict[str, list[GrantAgent]]) -> str:
    people = agents.get(role, [])
    if not people:
        return f"No agent of this workspace acts as {E(role)}."
    names = []
    for a in people:
        note = "" if a.role_known else (
            " (no role set)" if not a.role else f" (role {a.role!r} is unknown: acts as general)")
        names.append(f"{a.name}{note}")
    return f"Agents acting as {E(role)}: {_names(names)}."


def domain_lines(detail: DomainDetail | None, has_row: bool, named_by: tuple[str, ...]) -> str:
    if detail is None:
        return "<p><i>reading the domain's counts…</i></p>"
    parts = [f"Facts: <b>{detail.facts_active:,}</b> active of {detail.facts:,}",
             f"policies: <b>{detail.policies_active:,}</b> active of {detail.policies:,}"]
    row = detail.row
    if row is not None:
        made = f"created by {E(row.created_by_role or '—')} on {when(row.created_at)}"
        parts.append(f"domain row “{E(row.label or detail.domain)}”, {made}")
    elif not has_row:
        parts.append(f"<b>no domain row</b> (named by {E(', '.join(named_by) or 'nothing')} only)")
    scope = parse_domain_scope(detail.domain)
    if scope.is_repo_scoped:
        parts.append(f"repo-scoped: repo <b>{E(scope.repo_slug or '')}</b>, bare name <b>{E(scope.name)}</b> "
                     "(its rows decide where this domain has none)")
    return "<p>" + " · ".join(parts) + ".</p>"


def cell_html(cell: Cell, matrix: GrantMatrix, agents: dict[str, list[GrantAgent]], detail: DomainDetail | None) -> str:
    i = matrix.row_of(cell.domain)
    entry = matrix.domains[i] if i is not None else None
    means = (WRITE_MEANS if cell.permission is Permission.WRITE else NOT_WRITE_MEANS).format(
        role=E(cell.role.value), perm=E(cell.permission.value))
    return "".join([
        f"<h3>{E(cell.role.value)} × {E(cell.domain)}: {E(cell.permission.value)}</h3>",
        f"<p>{source_sentence(cell, matrix.read_order)}</p>",
        f"<p>{means}</p>",
        f"<p>{agents_line(cell.role.value, agents)}</p>",
        domain_lines(detail, entry.has_row if entry else False, entry.named_by if entry else ()),
        _stored_rows(matrix, cell.domain),
    ])


def _stored_rows(matrix: GrantMatrix, domain: str) -> str:
    rows = matrix.index.rows_of(domain)
    if not rows:
        return "<p>No grant row is stored for this domain.</p>"
    items = "".join(f"<li><code>{E(r.describe())}</code></li>" for r in rows[:60])
    more = f"<li>… and {len(rows) - 60} more</li>" if len(rows) > 60 else ""
    return f"<p>Rows stored for this domain, as the product reads them:</p><ol>{items}{more}</ol>"


def domain_html(domain: str, matrix: GrantMatrix, detail: DomainDetail | None) -> str:
    i = matrix.row_of(domain)
    if i is None:
        return ""
    entry = matrix.domains[i]
    writers = [ROLES[j].value for j in range(len(ROLES)) if matrix.code(i, j)[0] is Permission.WRITE]
    head = f"<h3>{E(domain)}</h3>"
    if writers:
        can = (f"<p>Roles that can promote facts to policies here: <b>{E(', '.join(writers))}</b> "
               f"({len(writers)} of {len(ROLES)}). Every role reads it and writes facts to it.</p>")
    else:
        can = ("<p><b>No role can promote facts to policies here</b> (locked down, or no write left). "
               "Every role still reads it and writes facts to it.</p>")
    return head + can + domain_lines(detail, entry.has_row, entry.named_by) + _stored_rows(matrix, domain)


def agent_html(agent: GrantAgent, matrix: GrantMatrix) -> str:
    """What one agent can write: the domains where its role's cell is write, and where not."""
    role = agent.acts_as
    j = ROLES.index(role)
    can, cannot = [], []
    for i, entry in enumerate(matrix.domains):
        permission, source = matrix.code(i, j)
        if permission is Permission.WRITE:
            can.append(entry.name)
        else:
            cannot.append(f"{entry.name} ({permission.value}{', fail-open' if source is Source.FAIL_OPEN else ''})")
    acts = role.value if agent.role_known else f"{role.value} (its role is {agent.role or 'no role'})"
    total = len(matrix.domains)
    return (f"<h3>What can {E(agent.name)} write?</h3><p>{E(agent.name)} acts as <b>{E(acts)}</b>. "
            f"It can promote facts to policies in <b>{len(can):,} of {total:,}</b> domains"
            + (f": {_names(can)}." if can else ".")
            + "</p>" + (f"<p><code>propose_policy</code> is refused in: {_names(cannot)}.</p>" if cannot else "")
            + "<p>It reads every domain and writes facts to every domain: nothing enforces those.</p>")
