#!/usr/bin/env python3
"""Fill or list the fields of a PDF form (needs pypdf)."""

import json
import sys


def main(argv: list[str]) -> int:
    from pypdf import PdfReader, PdfWriter

    if len(argv) == 3 and argv[1] == "--list":
        for name, field in (PdfReader(argv[2]).get_fields() or {}).items():
            print(f"{name}\t{field.get('/FT')}\t{field.get('/V')}")
        return 0
    if len(argv) != 4:
        print("usage: fill_form.py FORM.pdf VALUES.json OUT.pdf | --list FORM.pdf", file=sys.stderr)
        return 2
    reader = PdfReader(argv[1])
    writer = PdfWriter()
    writer.append(reader)
    with open(argv[2], encoding="utf-8") as fh:
        values = json.load(fh)
    for page in writer.pages:
        writer.update_page_form_field_values(page, values, auto_regenerate=False)
    with open(argv[3], "wb") as fh:
        writer.write(fh)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
