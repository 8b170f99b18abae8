// Electron main entry: the desktop window over the embedded server.
import './electron/main';
