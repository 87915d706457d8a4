/**
 * The web view's one HTML document. The code comes from the bundle built with the package (no CDN): the
 * Content-Security-Policy keeps it that way, and the token never leaves the page except as a header.
 */
export const UI_BUNDLE_PATH = '/ui/app.js';

export const UI_CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export const UI_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>winkube</title>
<link rel="stylesheet" href="/ui/app.css">
</head>
<body>
<div id="app"><p role="status">Loading…</p></div>
<script type="module" src="${UI_BUNDLE_PATH}"></script>
</body>
</html>
`;
