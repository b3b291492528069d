"""No template writes a form the browser's parser reads where scripts run (docs/sdk.md, section 1): inside a form
of the host page (an ASP.NET Web Forms page is one form) the parser drops a form of ours, and its end tag closes the
page's. A GET form for pages without scripts stands in a `<noscript class="svc-ds-form-holder">`, read as text
where scripts run; a form only scripts use is a `<div data-svc-form>` its module turns into one
(prerender/static/components/ui.js, `formsFromHolders` and `scriptedForms`)."""

from __future__ import annotations

import re
from pathlib import Path

TEMPLATES = Path(__file__).resolve().parents[2] / "prerender" / "templates"
# The one place a form is written: the holder's macro (prerender/templates/macros/forms.html).
MACRO = Path("macros/forms.html")
FORM_START = re.compile(r"<form\b")


def test_every_form_of_the_templates_is_in_a_noscript_holder():
    uses = 0
    for path in sorted(TEMPLATES.rglob("*.html")):
        source = path.read_text()
        if path.relative_to(TEMPLATES) == MACRO:
            start = source.index("<form")
            assert '<noscript class="svc-ds-form-holder"' in source[:start] and "</form></noscript>" in source
            continue
        assert not FORM_START.search(source), f"{path.relative_to(TEMPLATES)}: a <form> outside the holder's macro"
        uses += source.count("form_holder(")
    assert uses >= 4  # the entry's modes, the catalog's search, the planner's filters and views
