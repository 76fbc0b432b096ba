"""The map's geometry: distances, footprints, terrain, reach and paths (grid), line of sight and what the party sees."""
