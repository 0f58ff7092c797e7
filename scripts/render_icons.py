"""Render the application icon's PNG sizes from its SVG with Qt (run after changing it):

.venv/bin/python scripts/render_icons.py
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

APP_ID = "io.github.skillcatalog.SkillCatalog"
SIZES = (16, 24, 32, 48, 64, 128, 256)
ICONS = Path(__file__).resolve().parent.parent / "resources" / "icons" / "hicolor"


def main() -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    app = QGuiApplication(sys.argv[:1])
    renderer = QSvgRenderer(str(ICONS / "scalable" / "apps" / f"{APP_ID}.svg"))
    if not renderer.isValid():
        print("the SVG icon does not parse", file=sys.stderr)
        return 1
    for size in SIZES:
        image = QImage(size, size, QImage.Format.Format_ARGB32)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        renderer.render(painter)
        painter.end()
        out = ICONS / f"{size}x{size}" / "apps" / f"{APP_ID}.png"
        out.parent.mkdir(parents=True, exist_ok=True)
        if not image.save(str(out), "PNG"):
            print(f"could not write {out}", file=sys.stderr)
            return 1
        print(out.relative_to(ICONS.parent.parent.parent))
    del app
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
