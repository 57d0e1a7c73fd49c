nccl-numa explain test/fixtures/explain/two-socket.conf
