#!/usr/bin/env node
// Real-client compatibility stage: filled in by the clients suite (scripts/clients/).
console.log('clients: no client suite yet');
