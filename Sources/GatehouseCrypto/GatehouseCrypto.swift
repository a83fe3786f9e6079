// The crypto core: see issue 3.
