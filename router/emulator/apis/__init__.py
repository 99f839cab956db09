"""The provider APIs the emulator speaks, one module each."""
