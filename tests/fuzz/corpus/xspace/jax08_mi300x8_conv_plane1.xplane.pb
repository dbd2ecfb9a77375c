
á/device:GPU:0›Stream #17(Kernel)ÕÍ7"ÈýöÍ€¤Ù""	8
"È·©£€Ð÷"_"	8
"è»ÿ‡ã€ýè"è"	8
"­›“äÀËº"¦"	8
"ÐËºÿÄ€×Ë"±"	8
"Ðë›çÅÀ¥"Ú"	8
"˜Ö¥ÓÀÓá"ø"	8
"ÐÌ“Äþ€îí"¢
"	8
"Ðƒ…ÿÀé°"Á
"	8
›Stream #15(Kernel)ÕÍ7"ˆ½¯×€É£""	8
"È˜›¼€²"A"	8
"¨âº÷âÀ€Ó"å"	8
"ôë¨ä€¢³"³"	8
"ÐøÂ¡Å€ÈÐ"»"	8
"ðÜ§ÏÒ€Áü"Ì"	8
"˜îÃ‹ÕÀ–¢""	8
"Ð£ÐÐþÀÎ"¦
"	8
"øÀÜ–ÿ€„½"Î
"	8
ÇStream #16(Kernel)ÕÍ7"ˆ­ñ¤À¡"6"	8
"ˆ×­¶€¨´"<"	8
"9à£É¥À…"ó"	8"8"8"8"8" "9 êñÔ¥€œÁ"ô"	8"8"8"8"8" "9àÌÖƒ¦€£†"÷"	8"8"8"8"8" ":È‰•¡¦Àû"ú"	8"8"8"8"8" ":ˆ…¥®§€Õ¶§"û"	8"8"8"8"8" "è¼ðþâ€ªÚ"ð"	8
"9Ð¶éîäÀ·"Õ"	8"8"8"8"8" "¬Ë‹æ€…Ÿ"Ý"	8"±êŽæ€¹Õ"Ý"	8":Ðæ· æè‘š"í"	8"8"8"8"8" "#input_transpose_fusion_1.kd" loop_transpose_fusion.kd""__amd_rocclr_copyBuffer.kd"!input_transpose_fusion.kd"‡‚ýCijk_Ailk_Bljk_BBS_BH_MT256x128x64_MI16x16x16x1_SN_1LDSB0_APM1_ABV0_ACED0_AF0EM1_AF1EM1_AMAS3_ASE_ASGT_ASLT_ASM_ASAE01_ASCE01_ASEM1_AAC0_BL1_BS1_CLR1_DTLA0_DTLB0_DTVA1_DTVB0_DVO0_ETSP_EPS1_ELFLR0_EMLL0_FSSC10_FL0_GLVWA2_GLVWB4_GRCGA1_GRCGB1_GRPM1_GRVWn1_GSU1_GSUASB_GLS0_ISA942_IU1_K1_KLA_LBSPPA0_LBSPPB1024_LPA0_LPB4_LDL1_LRVW4_LWPMn1_LDW0_FMA_MIAV0_MDA2_MO40_MMFSC_MKFGSU256_NTA0_NTB0_NTC0_NTD0_NEPBS0_NLCA2_NLCB2_ONLL1_OPLV0_PK0_PAP0_PGR2_PLR5_PKA0_SIA3_SLW1_SS1_SU8_SUM0_SUS256_SCIUI1_SPO1_SRVW0_SSO0_SVW2_SNLL0_TSGRA0_TSGRB0_TT4_128_TLDS0_UMLDSA0_UMLDSB0_U64SL1_USFGROn1_VAW1_VSn1_VW2_VWB4_VFLRP1_WSGRA0_WSGRB0_WS64_WG64_4_1_WGM1.kd"Im3d2Col.kd*cudnn-conv.1*input_transpose_fusion*
core_count*		kernel_details*1-)jit(forward_3d_conv)/conv_general_dilated*LHD grid:69840,1,1 block:256,1,1 private_mem:0 group_mem:8192 occ_pct:0*
clock_rate*correlation_id*LHD grid:219,40,1 block:256,1,1 private_mem:0 group_mem:49280 occ_pct:0*HD@ grid:1024,1,1 block:256,1,1 private_mem:0 group_mem:0 occ_pct:0*device_vendor*
program_id*loop_transpose_fusion*jit_forward_3d_conv*
kernel*	x*
hlo_module*HD@ grid:1280,1,1 block:256,1,1 private_mem:0 group_mem:0 occ_pct:0*name* input_transpose_fusion.1*compute_cap_minor*
XlaModule:*
hlo_op*compute_cap_major*	tf_op*memory_size*KGC grid:6240,1,1 block:256,1,1 private_mem:0 group_mem:2112 occ_pct:0*memory_bandwidth*F
B
> grid:16,1,1 block:512,1,1 private_mem:0 group_mem:0 occ_pct:02*AMD2  –€2 °2	€€ ›¾M2	€€€øÿ2 	2 "tw003