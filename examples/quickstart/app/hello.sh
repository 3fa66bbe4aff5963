#!/bin/sh
# Copied into the template by the Dockerfile's COPY; run it in a sandbox: sh ~/app/hello.sh
cat "$(dirname "$0")/greeting.txt"
