"""The Qt layer: everything a person sees. It shows the core's state and sends it actions."""
