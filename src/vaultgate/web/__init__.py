"""What the fetch tool does, MCP-free: the only code that speaks HTTP to the open web.

urls.py       which URLs may be fetched (http and https, no credentials)
addresses.py  which addresses may be reached, and resolving a host to them
download.py   one GET with redirects re-checked, a size cap and a deadline
convert.py    HTML to markdown
pages.py      PageFetcher: the credential-free client, the policy and the page cache
"""
