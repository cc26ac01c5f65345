# cuSOLVER backend sources (added with the GPU backend).
