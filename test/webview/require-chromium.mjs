// npm test runs the chat webview's tests in Debian's Chromium: say how to install it rather than fail
// later with a browser-launch stack trace.
import fs from 'node:fs';
if (!fs.existsSync('/usr/bin/chromium')) {
  console.error('npm test: /usr/bin/chromium is missing (the webview tests need it). Install it with: bash test/webview/setup.sh  (apt-get install -y chromium)');
  process.exit(1);
}
