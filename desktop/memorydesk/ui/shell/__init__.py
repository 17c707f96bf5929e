"""The window around the tabs: start-up, the main window, its menus, settings and what it remembers."""
