"""Vocabulary of the demo workspace: a fictional software team and what its agents write down.

The team ("Acme", a web shop: a Next.js storefront, a Go API, Terraform infrastructure
and a React Native app) has agents with the product's roles. Everything here is plain
data; ``demo.builder`` turns it into memory through the service. Templates are written
so that two facts from the same template with different slot values share most of
their whitespace tokens (token Jaccard ≥ 0.5: a contradiction when topic and domain
match), while facts from different templates share few.
"""

from __future__ import annotations

from typing import Final

# -- the team ------------------------------------------------------------------------------------
# key, name, title, role (None = created in the app, no role), skills, effort, reports_to key
AGENTS: Final = (
    ("juno", "Juno", "Founder & CEO", "ceo", "strategy,hiring,roadmap", "medium", None),
    ("ada", "Ada", "Senior Engineer, Storefront", "coder", "typescript,nextjs,react,playwright", "high", "dara"),
    ("bram", "Bram", "Backend Engineer, Orders API", "coder", "go,postgres,grpc,kafka", "high", "dara"),
    ("chen", "Chen", "Mobile Engineer", "coder", "react-native,swift,kotlin", "medium", "dara"),
    ("dara", "Dara", "Staff Engineer, Code Review", "reviewer", "code-review,architecture,go,typescript", "high",
     "juno"),
    ("eli", "Eli", "QA Lead", "qa", "playwright,k6,test-plans,exploratory", "medium", "dara"),
    ("farah", "Farah", "Platform Engineer", "devops", "terraform,kubernetes,github-actions,aws", "high", "juno"),
    ("gus", "Gus", "Product Manager, Checkout", "pm", "roadmaps,user-research,analytics", "medium", "juno"),
    ("hana", "Hana", "Product Designer", "designer", "figma,design-tokens,accessibility", "medium", "gus"),
    ("ivo", "Ivo", "Security Engineer", "security", "threat-modelling,iam,secrets,gdpr", "high", "juno"),
    ("kit", "Kit", "Release Notes Writer", None, "writing,changelogs", "low", "gus"),
)

#: The person named in the change history for the grant and policy adjustments.
REVIEWER_NAME: Final = "Maya Okafor (engineering manager)"

#: Grant rows an older build copied in from the team's first workspace (role, domain, permission),
#: stored verbatim: the product reads "Designer" as designer and "engineer"/"intern" as general
#: (each then one of two rows for its cell, or the only one); "runbooks" is a domain only this
#: grant names. (No unknown permission string: ``memory-desk check`` would rightly report it, and
#: the demo passes the check.)
CARRIED_GRANTS: Final = (
    ("Designer", "design-system", "read"),
    ("engineer", "architecture", "none"),
    ("intern", "working-memory", "write"),
    ("devops", "runbooks", "write"),
)

REPOS: Final = ("acme-web", "acme-api", "acme-infra", "acme-mobile")

# -- components: capitalised two-word names, so the product's entity overlap can link them ------
COMPONENT_PREFIXES: Final = (
    "Checkout", "Billing", "Search", "Auth", "Notifications", "Catalog", "Inventory", "Shipping",
    "Reporting", "Onboarding", "Payments", "Pricing", "Profile", "Invoices", "Uploads", "Webhooks",
    "Scheduler", "Audit", "Analytics", "Media", "Ledger", "Refunds", "Coupons", "Reviews",
)
COMPONENT_SUFFIXES: Final = ("Service", "Worker", "Gateway", "Console", "Job", "Store")
#: How agents refer to each repository's part of the product (a capitalised word: an entity).
REPO_LABEL: Final = {"acme-web": "Storefront", "acme-api": "Backend", "acme-infra": "Platform",
                     "acme-mobile": "Mobile"}
SUFFIX_REPO: Final = {"Service": "acme-api", "Worker": "acme-api", "Gateway": "acme-infra",
                      "Console": "acme-web", "Job": "acme-infra", "Store": "acme-mobile"}

SLOTS: Final = {
    "lines": ("200", "300", "400", "600"),
    "retries": ("2", "3", "5"),
    "timeout": ("500 ms", "2 s", "5 s", "10 s"),
    "day": ("Monday", "Tuesday", "Wednesday", "Thursday"),
    "hour": ("09:00", "10:00", "14:00", "16:00"),
    "coverage": ("70", "80", "85", "90"),
    "approvals": ("one", "two"),
    "tool": ("pnpm", "npm", "yarn"),
    "logger": ("zap", "slog", "zerolog"),
    "days": ("7", "14", "30", "90"),
    "pct": ("1", "5", "10", "25"),
    "env": ("staging", "canary", "production"),
    "ttl": ("60 seconds", "5 minutes", "15 minutes", "1 hour"),
    "queue": ("SQS", "Kafka", "Redis streams"),
    "db": ("Postgres 15", "Postgres 16", "Aurora"),
}

# Component conventions: (aspect, bare domain, memory_type, writer roles, template).
# Topic = "<component-slug>-<aspect>", domain = "repo:<repo of the component>/<bare domain>"
# (or the bare domain for some topics). Content = "<repo label> / <component>: <template>";
# templates avoid other capitalised words, so facts about the same part of the product
# share most of their entities.
CONVENTIONS: Final = (
    ("retries", "architecture", "decision", ("coder", "reviewer"),
     "retries failed outbound calls {retries} times with exponential backoff and jitter, "
     "then gives up and reports the error upstream."),
    ("timeouts", "architecture", "decision", ("coder", "reviewer"),
     "calls to its dependencies use a {timeout} timeout; anything slower counts as a "
     "failure against the error budget."),
    ("pr-size", "conventions", "instruction", ("reviewer", "coder"),
     "pull requests stay under {lines} changed lines, otherwise the reviewer asks "
     "for a split before reading them."),
    ("approvals", "conventions", "instruction", ("reviewer",),
     "changes need {approvals} approving review from the code owners and a green CI run "
     "before they can be merged."),
    ("deploy-window", "deployments", "fact", ("devops",),
     "ships to {env} on {day} at {hour} UTC after the smoke suite passes; nobody deploys it "
     "on a friday afternoon."),
    ("coverage", "testing", "instruction", ("qa", "coder"),
     "the test suite keeps line coverage at or above {coverage} percent; the CI gate fails "
     "the build below that."),
    ("logging", "conventions", "fact", ("coder",),
     "logs through {logger} in JSON, one line per request, and never writes request bodies "
     "or tokens to the log."),
    ("package-manager", "conventions", "preference", ("coder",),
     "installs dependencies with {tool}; the lockfile is committed and CI runs a frozen "
     "install on every push."),
    ("cache-ttl", "architecture", "fact", ("coder", "reviewer"),
     "cached responses expire after {ttl}; writes invalidate the cache through the event "
     "bus straight away."),
    ("rollout", "deployments", "decision", ("devops", "pm"),
     "new features roll out behind a flag to {pct} percent of traffic first and are "
     "watched for a full day before going wider."),
    ("retention", "security", "decision", ("security", "devops"),
     "raw event data is kept for {days} days; older rows are aggregated nightly and the raw "
     "data is deleted afterwards."),
    ("flaky-tests", "testing", "instruction", ("qa",),
     "flaky tests are quarantined within {days} days with a tracking ticket instead of "
     "being retried silently in CI."),
    ("queue", "architecture", "decision", ("coder", "reviewer"),
     "slow work goes to {queue} and the request is acknowledged immediately; consumers are "
     "idempotent and keyed by order id."),
    ("database", "architecture", "fact", ("coder", "devops"),
     "state lives in {db} with one schema per service; migrations run in CI before the "
     "new version starts."),
)

# A second, unrelated statement on some aspects: same topic, low overlap, so it stays
# active beside the first one (and, from another agent, is a cross-agent disagreement).
CONVENTION_ASIDES: Final = {
    "pr-size": "mechanical renames may land as one large change if a codemod produced the "
               "diff and its script is linked in the description.",
    "deploy-window": "hotfixes skip the release train but still need the on-call engineer "
                     "to watch dashboards for thirty minutes.",
    "coverage": "coverage numbers matter less than having a test for every bug we fixed.",
    "retries": "retrying hides outages; alert on the retry rate before tuning limits.",
    "rollout": "flags are removed within two sprints of reaching everyone.",
}

TICKET_OUTCOMES: Final = (
    "fixed and verified on staging", "closed as won't fix after discussion with product",
    "reopened because the regression came back in the nightly run", "fixed, waiting for the next release",
    "could not reproduce with the production data snapshot",
)
TICKET_CAUSES: Final = (
    "a missing index on the orders table", "a race between two webhook deliveries",
    "a stale feature flag default", "timezone handling around the daylight-saving switch",
    "an unbounded retry loop", "a cache key that ignored the locale", "rounding of discounted totals",
    "an expired service certificate", "a pagination off-by-one in the export", "a null currency on old carts",
    "a missing null check after the schema change", "a memory leak in the image resizer",
)
PR_VERDICTS: Final = ("approved", "changes requested", "approved with nits", "blocked pending a security review")
PR_NOTES: Final = (
    "the error path swallows the context", "tests cover the happy path only", "naming follows the conventions",
    "the migration is not reversible", "logging leaks the customer email", "nice split into small commits",
    "the new endpoint lacks rate limiting", "feature flag wiring looks right",
)
INCIDENT_SYMPTOMS: Final = (
    "returned 502s", "timed out on most requests", "served stale prices", "dropped webhook deliveries",
    "double-charged a handful of carts", "stopped sending emails", "ran out of database connections",
)
INCIDENT_MITIGATIONS: Final = (
    "rolling back the last deploy", "scaling the pool from 20 to 60 connections", "flushing the CDN cache",
    "disabling the feature flag", "failing over to the replica", "restarting the stuck consumers",
)
RELEASE_CHANGES: Final = (
    "a faster product listing page", "the new refund flow", "wallet payments in the app", "dark mode in the console",
    "bulk export of invoices", "saved carts across devices", "a rewritten search ranking",
)
DESIGN_TOPICS: Final = ("buttons", "modals", "color-tokens", "spacing", "forms", "empty-states", "icons", "toasts")
DESIGN_TEMPLATES: Final = (
    "Design system {ui}: use the {variant} variant by default and keep touch targets at least {size} pixels.",
    "Accessibility check for {ui}: contrast ratio at least {ratio} to 1 and every state reachable by keyboard.",
)
DESIGN_SLOTS: Final = {
    "variant": ("primary", "secondary", "ghost", "outline"),
    "size": ("40", "44", "48"),
    "ratio": ("4.5", "7"),
}
PRODUCT_TEMPLATES: Final = (
    ("goal", "Goal for {quarter}: raise checkout conversion on mobile by {pct} percent through {lever}."),
    ("commitment", "We promised {customer} to ship {feature} by the end of {quarter}."),
    ("observation", "Customer interviews in {quarter}: shoppers abandon carts when {pain}."),
)
PRODUCT_SLOTS: Final = {
    "quarter": ("Q1", "Q2", "Q3", "Q4"),
    "pct": ("2", "3", "5"),
    "lever": ("one-page checkout", "saved payment methods", "faster shipping estimates"),
    "customer": ("Northwind Outfitters", "Blue Heron Books", "Contoso Garden"),
    "feature": ("invoice exports", "multi-currency carts", "SSO for the console"),
    "pain": ("shipping costs appear late", "the address form is long", "the coupon field fails silently"),
}
LEARNINGS: Final = (
    "learned the hard way that it needs a dry run against the production snapshot before any migration.",
    "load tests must use realistic cart sizes or they hide the slow path.",
    "dashboards should show the p99; the mean hid the last outage for an hour.",
)

# A few facts in other languages (the product stores any Unicode; its keyword search
# finds none of these, which the desk should make visible).
HEBREW: Final = (
    ("repo:acme-infra/deployments", "פריסה",
     "פריסה לייצור רק אחרי שבדיקות ה-smoke עוברות ב-staging, ואף פעם לא ביום שישי אחרי הצהריים."),
    ("oncall", "גיבויים",
     "הגיבוי של מסד הנתונים רץ כל לילה ב-02:00 UTC ונשמר שלושים יום בדלי ה-S3 של הצוות."),
    ("conventions", "קליטת עובדים",
     "מפתחים חדשים מקבלים גישה ל-GitHub, ל-Sentry ולסביבת ה-staging כבר ביום הראשון."),
)
GERMAN: Final = (
    ("security", "datenschutz-auskunft",
     "Datenschutz-Auskünfte an Kunden gehen innerhalb von 30 Tagen raus; den Export aus dem Billing Service "
     "startet das Support-Team über das Admin-Tool."),
    ("design-system", "übersetzungen",
     "Übersetzungen für die Oberfläche kommen wöchentlich aus dem Übersetzungsportal; lange deutsche Texte "
     "prüft das Design-Team, weil Buttons sonst überlaufen."),
    ("oncall", "rufbereitschaft",
     "Die Rufbereitschaft wechselt montags um 09:00 Uhr; die Übergabe erfolgt schriftlich im Kanal #oncall "
     "mit allen offenen Störungen."),
)
# Stream variants (topic and domain fixed, one slot varies → contradictions in other scripts too).
HEBREW_STREAM: Final = (
    ("oncall", "חלון תחזוקה", "חלון התחזוקה השבועי של {C} הוא ביום {he_day} בין 04:00 ל-05:00 UTC."),
)
GERMAN_STREAM: Final = (
    ("conventions", "code-review-deutsch",
     "Reviews für den {C} sollten innerhalb von {de_hours} Stunden erledigt sein, größere Änderungen brauchen "
     "zwei Freigaben."),
)
FOREIGN_SLOTS: Final = {
    "he_day": ("ראשון", "שני", "שלישי", "רביעי"),
    "de_hours": ("4", "8", "24"),
}

HOT_ITEMS: Final = (
    ("observation", "The nightly e2e run on {C} took 41 minutes, up from 28 last week."),
    ("decision", "Agreed with the reviewer to keep the {C} change behind a flag until QA signs off."),
    ("context", "Working on the {C} ticket in a fresh branch; the old branch has unrelated commits."),
    ("learning", "The {C} staging data is two weeks old; refresh it before reproducing bugs."),
    ("event", "Deploy of {C} to staging started at 14:05 UTC."),
    ("preference", "Gus prefers release notes grouped by customer impact, not by repository."),
    ("goal", "Finish the {C} migration before the holiday code freeze."),
)
