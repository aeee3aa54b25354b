"""``python -m sdmac`` is the ``sdmac`` command."""

from .cli import main

if __name__ == "__main__":
    main()
