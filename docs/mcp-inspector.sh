#!/usr/bin/env bash
# Checks a running promptdesk's MCP endpoint with a client nobody here
# wrote: the MCP Inspector's command-line mode (npm package
# @modelcontextprotocol/inspector, fetched by npx on first use). It lists
# the prompts and the tools, then calls assemble, printing each answer.
#
#   PROMPTDESK_TOKEN=pd_... docs/mcp-inspector.sh [URL]
#
# URL defaults to http://127.0.0.1:8080/mcp. The token needs the scopes
# assemble and read (promptdesk token add --scope assemble,read NAME).
# INSPECTOR_VERSION picks the Inspector's version (default below: the
# last release whose command line takes --header and runs on Node 20).
set -euo pipefail

url=${1:-http://127.0.0.1:8080/mcp}
version=${INSPECTOR_VERSION:-0.17.2}
: "${PROMPTDESK_TOKEN:?set PROMPTDESK_TOKEN to an API token with the scopes assemble and read}"

inspect() {
	npx -y "@modelcontextprotocol/inspector@${version}" --cli "$url" --transport http \
		--header "Authorization: Bearer ${PROMPTDESK_TOKEN}" "$@"
	echo
}

echo "== prompts/list"
inspect --method prompts/list
echo "== tools/list"
inspect --method tools/list
echo "== tools/call assemble"
inspect --method tools/call --tool-name assemble \
	--tool-arg locale=en-US --tool-arg 'message=Please translate this note into German' --tool-arg model=gpt-4o
