#!/usr/bin/env bash
# Fails when generated files are out of step with their sources: the Prisma client,
# entity models, schema/schema.graphql, the codegen documents, the typed client, the console's entities, the generated parts of
# docs/, and the migrations versus the Prisma schema.
set -euo pipefail
cd "$(dirname "$0")/.."
npm run -s generate
if ! git diff --exit-code --stat -- schema src/generated client/src/generated console/src/generated docs prisma/schema.prisma prisma/entities.prisma || [ -n "$(git ls-files --others --exclude-standard -- schema src/generated client/src/generated console/src/generated docs)" ]; then
  echo "Generated files differ from what is committed: run 'npm run generate' and commit the result." >&2
  git ls-files --others --exclude-standard -- schema src/generated client/src/generated console/src/generated docs >&2
  exit 1
fi
npm run -s db:migration -- --check
