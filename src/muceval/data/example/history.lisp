(("DEMO-0001"
  ("1"
   (perp-ind-id
    ("\"MOTORCYCLE\"" fail))
   (phys-tgt-id
    ("\"OFFICE\"" match (or "\"HARBOUR MASTER'S OFFICE\"" "\"OFFICE\""))
    ("\"HARBOUR\"" fail))
   (hum-tgt-desc
    ("\"WATCHMAN\"" partial "\"NIGHT WATCHMAN\""))))
 ("DEMO-0003"
  ("1"
   (inc-date
    ("12 MAR 24" partial (or (range "11 MAR 24" "12 MAR 24") (range nil "12 MAR 24")))
    ("11 MAR 24" partial (or (range "11 MAR 24" "12 MAR 24") (range nil "12 MAR 24"))))
   (hum-tgt-name
    ("\"ALMA RESTREPO\"" partial "\"ALMA RESTREPO VIDAL\""))
   (hum-tgt-desc
    ((xref "\"MAYOR\"" "\"ALMA RESTREPO VIDAL\"")
     partial
     (xref "\"MAYOR OF SAN OREL\"" "\"ALMA RESTREPO VIDAL\""))
    ("\"MAYOR\"" fail))))
 ("DEMO-0004"
  ("1"
   (phys-tgt-id
    ("\"DEPOT\"" partial "\"BUS DEPOT\"")
    ("\"BUSES\"" match "\"THREE BUSES\"")
    ("\"KIOSK\"" fail))))
 ("DEMO-0006"
  ("1"
   (hum-tgt-num
    ((xref "5" "\"SOLDIERS\"") partial (xref "4" "\"SOLDIERS\"")))))
 ("DEMO-0009"
  ("1"
   (inc-date
    ("16 APR 24" fail))
   (phys-tgt-id
    ("\"MARKET\"" partial "\"MARKET STALLS\""))
   (hum-tgt-num
    ((xref "PLURAL" "\"SHOPPERS\"") partial (xref "7" "\"SHOPPERS\""))
    ((xref "3" "\"SHOPPERS\"") fail))))
 ("DEMO-0010"
  ("1"
   (perp-ind-id
    ("\"MEN\"" partial "\"ARMED MEN\"")))))
