"""Nintendo 3DS shader containers: SHBIN (DVLB/DVLP/DVLE), DVOB/DVOJ, CGFX .bcsdr, base64 .csdr."""
