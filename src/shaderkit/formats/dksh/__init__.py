"""deko3d shader modules (``.dksh``): the Switch homebrew shader format uam writes (see :mod:`.dksh`)."""
