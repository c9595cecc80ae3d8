"""2-d point cloud and patch augmentation written the way a robotics person writes it:
angles in degrees through ``np.deg2rad``, a rotation matrix from ``np.array`` of traced
scalars, points as ``np.column_stack`` of coordinates, quarter turns by ``np.rot90``,
channels joined by ``np.dstack`` and a tolerance check by ``np.isclose``."""

import numpy as np


def rotation(degrees):
    theta = np.deg2rad(degrees)
    c, s = np.cos(theta), np.sin(theta)
    return np.array([[c, -s], [s, c]])


def transform(xs, ys, degrees, shift):
    points = np.column_stack([xs, ys])
    moved = points @ rotation(degrees).T + shift
    radius = np.linalg.norm(moved, axis=1)
    kept = np.isclose(radius, np.linalg.norm(points, axis=1), atol=1e-4)
    return moved, radius, kept


def augment_patch(patch, turns):
    """patch: (H, W) -> (H, W, 2) stacked with its rotation (square patches)."""
    return np.dstack([patch, np.rot90(patch, turns)]), np.rad2deg(np.arctan2(patch[0], patch[-1]))
