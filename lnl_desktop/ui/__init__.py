"""The Qt layer: everything a person sees. It shows the core's state and sends it actions."""

import os

# Qt's raster engine hands the rows of a big fill, image conversion or scaling to a pool of threads and
# waits for them. At a map view's sizes the hand-off costs more than the work: the GM's hatch over a
# 300 x 300 map fills in 0.12 ms on the GUI thread, 0.47 ms through the pool (2 cores), and a Party move
# on that map paints about a millisecond sooner. Qt reads it at its first such fill: set before any paints.
os.environ.setdefault("QT_NO_GUI_THREADPOOL", "1")
