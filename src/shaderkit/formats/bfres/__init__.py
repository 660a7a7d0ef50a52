"""Model archives (BFRES): the shader archives they carry as external files."""
