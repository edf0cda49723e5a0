-- wrk script of the soak (soak.sh): random pages at four widths, items, the first page, stats.
math.randomseed(os.time())
local widths = {375, 414, 1280, 768}
request = function()
  local r = math.random()
  if r < 0.7 then
    local w = widths[math.random(#widths)]
    return wrk.format("GET", "/api/page?width=" .. w .. "&offset=" .. math.random(0, 3000000))
  elseif r < 0.85 then
    return wrk.format("GET", "/api/items?offset=" .. math.random(0, 19000) .. "&limit=50")
  elseif r < 0.95 then
    return wrk.format("GET", "/api/page?width=375&offset=0")
  else
    return wrk.format("GET", "/api/stats")
  end
end
