// `TraceFormats`: see README.md (Layout). Built by its own issue.
