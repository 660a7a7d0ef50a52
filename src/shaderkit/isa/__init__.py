"""One package per instruction set; one table drives decode, encode, text and assembly."""
